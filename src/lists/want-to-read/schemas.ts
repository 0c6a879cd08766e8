import { z } from 'zod';
import { Uuid } from '../../http/params.js';

export const WantToReadParams = z.object({ series_id: Uuid });
