import { authHeaders, toApiError } from '../api/client';

/**
 * Saves what an API address answers as a file, through the session (the file cookie reaches only books): fetched,
 * then handed to the browser under the name the server gives, else `fallbackName`.
 */
export async function saveDownload(url: string, fallbackName: string): Promise<void> {
  const response = await fetch(url, { headers: authHeaders() });
  if (!response.ok) throw await toApiError(response, await response.json().catch(() => null));
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
  const objectUrl = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = objectUrl;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(objectUrl), 60_000);
}
