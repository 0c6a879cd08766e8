import { useQuery } from '@tanstack/react-query';
import { collectionsQuery } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorView';
import { CollectionCard } from './ListCards';

/** Every collection the caller sees (its own and the shared ones), as a grid of covers. */
export function CollectionsPage() {
  const collections = useQuery(collectionsQuery);
  return (
    <div className="page">
      <h1>Collections</h1>
      <ErrorMessage error={collections.error} />
      {collections.isPending && <p>Loading…</p>}
      {collections.data?.data.length === 0 && (
        <p className="empty">No collections yet. On a series page, "Add to collection…" starts one.</p>
      )}
      {collections.data && collections.data.data.length > 0 && (
        <ul className="grid">
          {collections.data.data.map((c) => (
            <li key={c.id}>
              <CollectionCard collection={c} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
