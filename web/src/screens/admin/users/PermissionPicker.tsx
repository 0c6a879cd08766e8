import type { components } from '../../../api/client';

type User = components['schemas']['User'];
export type Role = User['role'];
export type Permission = User['permissions'][number];

/** Custom permissions held on top of the role, as a folded list of checkboxes. */
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
  return (
    <details className="permission-picker">
      <summary>Custom permissions ({selected.length})</summary>
      <p className="hint">
        Held on top of the role. Admin-only permissions take effect only for administrators.
        {role === 'admin' ? ' An administrator already holds every permission.' : ''}
      </p>
      <div className="permission-grid">
        {all.map((p) => (
          <label key={p} className="check" htmlFor={`${idPrefix}-${p}`}>
            <input
              id={`${idPrefix}-${p}`}
              type="checkbox"
              checked={selected.includes(p)}
              onChange={(e) => onChange(e.target.checked ? [...selected, p] : selected.filter((x) => x !== p))}
            />
            <code>{p}</code>
          </label>
        ))}
      </div>
    </details>
  );
}
