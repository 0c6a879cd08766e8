import { authHeaders, toApiError } from '../api/client';

/**
 * Downloads a book's file with the session's token (a plain link could not send it) and hands it to the
 * browser under the file's own name.
 */
export async function downloadFile(url: string, fallbackName: string): Promise<void> {
  const response = await fetch(url, { headers: authHeaders() });
  if (!response.ok) throw await toApiError(response, await response.json().catch(() => null));
  const disposition = response.headers.get('Content-Disposition') ?? '';
  const match = /filename\*=UTF-8''([^;]+)/i.exec(disposition) ?? /filename="?([^";]+)"?/i.exec(disposition);
  const name = match?.[1] ? decodeURIComponent(match[1]) : fallbackName;
  const blobUrl = URL.createObjectURL(await response.blob());
  const a = document.createElement('a');
  a.href = blobUrl;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(blobUrl), 60_000);
}
