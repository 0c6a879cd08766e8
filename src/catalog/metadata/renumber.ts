import { z } from 'zod';
import { Uuid } from '../../http/params.js';
import { BulkResult } from './schemas.js';
import type { MetadataChange } from './service.js';

/** Numbers are rounded to this many decimals: 0.1 steps give "1.2", not "1.2000000000000002". */
const DECIMALS = 3;

export const BookRenumber = z
  .object({
    ids: z
      .array(Uuid)
      .min(1)
      .max(5000)
      .superRefine((ids, ctx) => {
        const seen = new Set<string>();
        ids.forEach((id, i) => {
          if (seen.has(id)) ctx.addIssue({ code: 'custom', path: [i], message: 'names a book already named' });
          seen.add(id);
        });
      })
      .describe(
        'The books, in their new order (each once; all visible to the caller, else 404 and nothing changes). Books of ' +
          'several series may be named: each gets the next number all the same.',
      ),
    start: z.number().finite().min(-1_000_000).max(1_000_000).default(1).describe("The first book's number (default 1)."),
    step: z
      .number()
      .min(0.001)
      .max(1_000_000)
      .default(1)
      .describe(`What each next book adds (default 1; numbers are rounded to ${DECIMALS} decimals).`),
  })
  .strict()
  .meta({ id: 'BookRenumber' });
export type BookRenumber = z.infer<typeof BookRenumber>;

export const RenumberResult = BulkResult.extend({
  entry_id: z
    .string()
    .nullable()
    .describe('An entry of this change (null when nothing changed): POST /api/v1/history/{entry_id}/undo undoes it all.'),
}).meta({ id: 'BookRenumberResult' });

/**
 * The change of each book of a renumbering: the books in the order given get start, start + step, … as `number`
 * (the text) and `number_sort` (the order), both locked as any edit is.
 */
export function renumbering(request: BookRenumber): Map<string, MetadataChange> {
  const scale = 10 ** DECIMALS;
  return new Map(
    request.ids.map((id, i) => {
      // `+ 0` turns a rounded -0 into 0, which prints as "0".
      const n = Math.round((request.start + i * request.step) * scale) / scale + 0;
      return [id, { set: { number: String(n), number_sort: n } }];
    }),
  );
}
