import { useLingui } from '@lingui/react';
import { Trans } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { components } from '../../../api/client';
import { librariesQuery } from '../../../api/queries';
import { describeAccess } from '../../../lib/content-access';
import { AccessForm } from './AccessForm';

type User = components['schemas']['User'];

/**
 * What a user who is not an administrator sees, in a few words, unfolding into the access editor (AccessForm.tsx).
 * The editor, and the counts it asks for, exist only while it is open.
 */
export function UserAccess({ user }: { user: User }) {
  // describeAccess speaks the active language: a change of language renders it again.
  useLingui();
  const [open, setOpen] = useState(false);
  const libraries = useQuery(librariesQuery);
  const nameOf = (id: string) => libraries.data?.data.find((l) => l.id === id)?.name;
  const { username } = user;
  const access = describeAccess(user, nameOf);
  return (
    <details className="access-editor" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        <Trans>
          What {username} sees: {access}
        </Trans>
      </summary>
      {open && <AccessForm user={user} />}
    </details>
  );
}
