import { describe, expect, it } from 'vitest';
import { parseTemplate, renderTemplate, TemplateError } from '../../src/libraries/inbox/naming-template.js';

const DEFAULT = '{series}/{series}[ v{volume:02}] #{number:03}[ ({year})].{ext}';
const render = (template: string, values: Parameters<typeof renderTemplate>[1]) => renderTemplate(parseTemplate(template), values);

describe('inbox naming templates (issue 55)', () => {
  it('fills fields, pads numbers, and leaves out an optional part whose field has no value', () => {
    expect(render(DEFAULT, { series: 'Saga', volume: 1, number: 7, year: 2013, ext: 'cbz' })).toBe('Saga/Saga v01 #007 (2013).cbz');
    expect(render(DEFAULT, { series: 'Saga', number: '12.5', ext: 'cbz' })).toBe('Saga/Saga #012.5.cbz');
    expect(
      render('{publisher}/{series}/{original}.{ext}', { publisher: 'Image', series: 'Saga', original: 'saga_001_(digital)', ext: 'cbr' }),
    ).toBe('Image/Saga/saga_001_(digital).cbr');
  });

  it('makes every folder and file name safe on any filesystem, and a value never makes a folder', () => {
    expect(render(DEFAULT, { series: 'AC/DC: Live?', number: 1, ext: 'cbz' })).toBe('AC_DC_ Live_/AC_DC_ Live_ #001.cbz');
    expect(render('{series}/{title}.{ext}', { series: 'Dots...', title: '  spaced   out  ', ext: 'epub' })).toBe('Dots/spaced out.epub');
    expect(() => render('{series}/{title}.{ext}', { series: '..', title: 'x', ext: 'cbz' })).toThrow(TemplateError);
  });

  it('refuses a book without a required field, naming it', () => {
    expect(() => render(DEFAULT, { number: 1, ext: 'cbz' })).toThrow('The book has no {series} for this template');
  });

  it.each([
    ['', 'The template is empty'],
    ['/abs/{series}.{ext}', 'cannot start with /'],
    ['{series}/{issue}.{ext}', 'Unknown field {issue}'],
    ['{series}/{number:3}.{ext}', 'the width is written 02'],
    ['{series/{number}.{ext}', 'Unknown field'],
    ['{series}/{number.{ext}', 'Unknown field'],
    ['{series}}.{ext}', 'A } has no {'],
    ['{series}[ v{volume}.{ext}', 'A [ is not closed'],
    ['{series}[ v[{volume}]].{ext}', 'cannot be nested'],
    ['{series}[ v].{ext}', 'holds no field'],
    ['{series}/{number}', 'must end the file name with {ext}'],
  ])('refuses %j: %s', (template, message) => {
    expect(() => parseTemplate(template)).toThrow(message);
  });

  it('says where the mistake is', () => {
    try {
      parseTemplate('{series}/{issue}.{ext}');
      expect.unreachable();
    } catch (err) {
      expect((err as TemplateError).at).toBe(9);
    }
  });
});
