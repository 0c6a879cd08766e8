import { plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import type { components } from '../../../api/client';
import { permissionGroups, permissionInfo } from './permission-names';

type User = components['schemas']['User'];
export type Role = User['role'];
export type Permission = User['permissions'][number];

/**
 * Custom permissions held on top of the role, folded under one line: by area (each its own fold-out, saying how many
 * are ticked), each permission by its name and what it allows, the code on hover.
 */
export function PermissionPicker({
  all,
  role,
  selected,
  onChange,
  idPrefix,
}: {
  all: Permission[];
  role: Role;
  selected: Permission[];
  onChange(p: Permission[]): void;
  idPrefix: string;
}) {
  // The names come from permission-names.ts in the active language: a change of language renders them again.
  const { t } = useLingui();
  const selectedCount = selected.length;
  return (
    <details className="permission-picker">
      <summary>
        <Trans>Custom permissions ({selectedCount})</Trans>
      </summary>
      <p className="hint">
        {role === 'admin' ? (
          <Trans>
            Held on top of the role. Admin-only permissions take effect only for administrators. An administrator already holds every
            permission.
          </Trans>
        ) : (
          <Trans>Held on top of the role. Admin-only permissions take effect only for administrators.</Trans>
        )}
      </p>
      {all.length === 0 && (
        <p className="hint">
          <Trans>Loading the permissions…</Trans>
        </p>
      )}
      <div className="permission-areas">
        {permissionGroups(all).map((group) => {
          const ticked = group.codes.filter((p) => selected.includes(p)).length;
          const total = group.codes.length;
          const count =
            ticked > 0 ? plural(ticked, { one: `# of ${total} ticked`, other: `# of ${total} ticked` }) : t`${total}, none ticked`;
          return (
            <details key={group.area} className="permission-area">
              <summary>
                {group.area} <span className="hint">({count})</span>
              </summary>
              <div className="permission-list" role="group" aria-label={group.area}>
                {group.codes.map((p) => {
                  const info = permissionInfo(p);
                  return (
                    <label key={p} className="check permission" htmlFor={`${idPrefix}-${p}`} title={p}>
                      <input
                        id={`${idPrefix}-${p}`}
                        type="checkbox"
                        checked={selected.includes(p)}
                        aria-describedby={info.description ? `${idPrefix}-${p}-what` : undefined}
                        onChange={(e) => onChange(e.target.checked ? [...selected, p] : selected.filter((x) => x !== p))}
                      />
                      <span>
                        <span className="permission-name">{info.name}</span>
                        {info.description && (
                          <span className="hint permission-what" id={`${idPrefix}-${p}-what`}>
                            {info.description}
                          </span>
                        )}
                      </span>
                    </label>
                  );
                })}
              </div>
            </details>
          );
        })}
      </div>
    </details>
  );
}
