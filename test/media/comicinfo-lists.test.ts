import { describe, expect, it } from 'vitest';
import { parseComicInfo } from '../../src/media/metadata/comicinfo.js';
import { buildBookMetadata, listMembershipsOf } from '../../src/media/metadata/metadata.js';
import { comicInfoXml } from './fixtures.js';

describe('ComicInfo SeriesGroup, StoryArc/StoryArcNumber and AlternateSeries/AlternateNumber', () => {
  it('SeriesGroup is a comma-separated list of names (repeats, case aside, count once)', () => {
    const { fields } = parseComicInfo(comicInfoXml({ SeriesGroup: 'Bat Family, Gotham ,, bat family' }));
    expect(fields.series_groups).toEqual(['Bat Family', 'Gotham']);
  });

  it('StoryArc and StoryArcNumber are lists paired by position, as ComicRack writes them; AlternateSeries is one more arc', () => {
    const { fields } = parseComicInfo(
      comicInfoXml({
        StoryArc: 'Court of Owls, Night of Owls,Zero Year',
        StoryArcNumber: '03, 1',
        AlternateSeries: 'Owls Crossover',
        AlternateNumber: '2',
      }),
    );
    expect(fields.story_arcs).toEqual([
      { name: 'Court of Owls', number: '3' },
      { name: 'Night of Owls', number: '1' },
      { name: 'Zero Year', number: null },
      { name: 'Owls Crossover', number: '2' },
    ]);
  });

  it('a lone arc takes the whole number; no number is null; an AlternateSeries already among the arcs counts once', () => {
    expect(parseComicInfo(comicInfoXml({ StoryArc: 'Owls', StoryArcNumber: '1,5' })).fields.story_arcs).toEqual([
      { name: 'Owls', number: '1,5' },
    ]);
    expect(parseComicInfo(comicInfoXml({ StoryArc: 'Owls', AlternateSeries: 'owls', AlternateNumber: '9' })).fields.story_arcs).toEqual([
      { name: 'Owls', number: null },
    ]);
    expect(parseComicInfo(comicInfoXml({ AlternateSeries: 'Crossover' })).fields.story_arcs).toEqual([{ name: 'Crossover', number: null }]);
    expect(parseComicInfo(comicInfoXml({ Series: 'Batman' })).fields).not.toHaveProperty('story_arcs');
  });

  it('the merged record always has both lists, empty without ComicInfo', () => {
    const plain = buildBookMetadata({ path: '/lib/Batman/Batman 001.cbz', libraryRoot: '/lib' });
    expect(plain).toMatchObject({ series_groups: [], story_arcs: [] });
    const { fields } = parseComicInfo(comicInfoXml({ SeriesGroup: 'Gotham', StoryArc: 'Owls', StoryArcNumber: '1' }));
    const withInfo = buildBookMetadata({
      path: '/lib/Batman/Batman 001.cbz',
      libraryRoot: '/lib',
      embedded: { source: 'comicinfo', fields },
    });
    expect(withInfo).toMatchObject({ series_groups: ['Gotham'], story_arcs: [{ name: 'Owls', number: '1' }] });
    expect(withInfo.sources).toMatchObject({ series_groups: 'comicinfo', story_arcs: 'comicinfo' });
  });

  it('listMembershipsOf reads records stored before the lists existed (or damaged) as belonging to none', () => {
    expect(listMembershipsOf({ title: 'Old record' })).toEqual({ series_groups: [], story_arcs: [] });
    expect(listMembershipsOf(null)).toEqual({ series_groups: [], story_arcs: [] });
    expect(
      listMembershipsOf({ series_groups: 'Gotham', story_arcs: [{ name: 'Owls', number: 1 }, { name: '' }, { name: 'Ok', number: null }] }),
    ).toEqual({
      series_groups: [],
      story_arcs: [{ name: 'Ok', number: null }],
    });
  });
});
