import { describe, expect, it } from 'vitest';
import { fieldInWords, rowProblems, SERIES_GROUPS, toApi } from './fields';
import { renumbered } from './renumber';

const specs = SERIES_GROUPS.flatMap((g) => g.fields);
const links = specs.find((s) => s.name === 'links')!;

describe('list fields of the Edit dialog', () => {
  it('say what is wrong with a row in words before saving, and leave blank rows out', () => {
    const rows = [
      { label: 'Home', url: 'https://example.org' },
      { label: 'Shop', url: 'example.org/shop' },
      { label: 'Nothing', url: ' ' },
      { label: '', url: '' },
      { label: '', url: 'javascript:alert(1)' },
    ];
    expect(rowProblems(links.rows!, rows)).toEqual([
      null,
      'Link 2: "example.org/shop" is not a web address; it must start with http:// or https://.',
      'Link 3 has no web address.',
      null,
      'Link 5: "javascript:alert(1)" is not a web address; it must start with http:// or https://.',
    ]);
    expect(
      toApi(links, [
        { label: ' Home ', url: ' https://example.org ' },
        { label: '', url: '' },
      ]),
    ).toEqual([{ label: 'Home', url: 'https://example.org' }]);
  });

  it("name the fields of the API's 400 details in the dialog's words", () => {
    expect(fieldInWords(specs, 'links.0.url')).toBe('Links, link 1: web address');
    expect(fieldInWords(specs, 'alternate_titles.2')).toBe('Alternate titles, alternate title 3');
    expect(fieldInWords(specs, 'summary')).toBe('Summary');
    expect(fieldInWords(specs, 'nonsense.1')).toBe('nonsense.1');
  });
});

describe('renumbering', () => {
  it('shows the numbers the server gives, and none for out-of-range input', () => {
    expect(renumbered(3, '1', '0.1')).toEqual([1, 1.1, 1.2]);
    expect(renumbered(2, '-0.0001', '1')).toEqual([0, 1]);
    expect(renumbered(2, '', '1')).toBeNull();
    expect(renumbered(2, '1', '0')).toBeNull();
    expect(renumbered(2, '2000000', '1')).toBeNull();
  });
});
