import { describe, expect, it } from 'vitest';
import { cronProblem } from './cron';

describe('cronProblem: the schedule field checked as you type', () => {
  it('accepts the usual five-field forms', () => {
    for (const ok of ['0 3 * * *', '*/15 * * * *', '0 0 1 1 *', '30 2 * * mon-fri', '0 4 * * 0,6', '5 1-5/2 * jan *']) expect(cronProblem(ok), ok).toBeNull();
  });
  it('names the problem in words', () => {
    expect(cronProblem('0 3 * *')).toMatch(/5 fields.*has 4/);
    expect(cronProblem('61 * * * *')).toMatch(/minute field must stay within 0–59/);
    expect(cronProblem('0 25 * * *')).toMatch(/hour field/);
    expect(cronProblem('0 0 * * x')).toMatch(/day of week field has "x"/);
    expect(cronProblem('*/0 * * * *')).toMatch(/bad step/);
    expect(cronProblem('0 5-1 * * *')).toMatch(/hour field must stay/);
  });
});
