import { describe, expect, it } from 'vitest';
import { folderTitle, foldTitle } from '../../src/catalog/identify/names.js';
import { decide, scoreCandidate, titleSimilarity } from '../../src/catalog/identify/score.js';

describe('folder names as titles to search for', () => {
  it.each([
    ['[Scans] Berserk v01-05 (Digital)', 'Berserk', null, 5],
    ['One Piece c001 [Viz]', 'One Piece', null, null],
    ['Pokémon Adventures (2009)', 'Pokémon Adventures', 2009, null],
    ['Saga v01 (2012) (Digital) (Zone-Empire)', 'Saga', 2012, 1],
    ['Blame! Master Edition Vol. 3', 'Blame! Master Edition', null, 3],
    ['Astérix T01 - Astérix le Gaulois', 'Astérix - Astérix le Gaulois', null, 1],
    ['進撃の巨人 第01巻', '進撃の巨人 第01巻', null, null],
    ['Usagi_Yojimbo_#12', 'Usagi Yojimbo', null, null],
    ['Watchmen 1986', 'Watchmen', 1986, null],
    ['Chainsaw Man', 'Chainsaw Man', null, null],
    ['Magic Comics 001-052 (digital) (Zone-Empire)', 'Magic Comics', null, 52],
    ['Green Lantern (2011) 001', 'Green Lantern', 2011, null],
    ['Mob Psycho 100 v01-16', 'Mob Psycho 100', null, 16],
    ['Complete Mystery (1948)', 'Complete Mystery', 1948, null],
    ['Berserk Complete', 'Berserk', null, null],
  ])('%s → %s', (name, title, year, volumes) => {
    expect(folderTitle(name)).toMatchObject({ title, year, volumes });
  });

  it("keeps the bracketed notes that may name an edition, not the source, the year or the ripper's words", () => {
    expect(folderTitle('Chainsaw Man [Official Colored] v01 (Digital)').qualifiers).toEqual(['official colored']);
    expect(folderTitle('Solo Leveling (Novel) (2016) [Scans]').qualifiers).toEqual(['novel']);
  });

  it('keeps the name when nothing is left of it', () => {
    expect(folderTitle('(Digital)').title).toBe('(Digital)');
  });
});

describe('editions', () => {
  const plain = { titles: ['Chainsaw Man'] };
  const colored = { titles: ['Chainsaw Man (Official Colored)', 'Chainsaw Man'] };
  it('an entry whose title names an edition scores lower unless the folder names it too', () => {
    const query = { title: folderTitle('Chainsaw Man v01').title, qualifiers: folderTitle('Chainsaw Man v01').qualifiers };
    expect(scoreCandidate(query, plain).score).toBe(1);
    expect(scoreCandidate(query, colored).score).toBeLessThanOrEqual(0.9);
    expect(decide([scoreCandidate(query, plain).score, scoreCandidate(query, colored).score])).toBe('apply');
    const named = folderTitle('Chainsaw Man [Official Colored] v01');
    expect(scoreCandidate({ title: named.title, qualifiers: named.qualifiers }, colored).score).toBe(1);
  });

  it('a year in brackets is no edition: "Qiang Jin Jiu (2024)" is the work "Qiang Jin Jiu"', () => {
    expect(scoreCandidate({ title: 'Qiang Jin Jiu' }, { titles: ['Qiang Jin Jiu (2024)'] }).score).toBe(1);
  });
});

describe('titles folded for comparison', () => {
  it('folds width, kana, accents, case, "&" and punctuation', () => {
    expect(foldTitle('ＳＰＹ×ＦＡＭＩＬＹ')).toBe(foldTitle('Spy x Family'));
    expect(foldTitle('Pokémon')).toBe('pokemon');
    expect(foldTitle('シンゲキ')).toBe(foldTitle('しんげき'));
    expect(foldTitle('Tom & Jerry!')).toBe('tom and jerry');
    expect(foldTitle('Blame!')).toBe(foldTitle('BLAME'));
  });

  it('similarity: 1 for the same title, high for word order, low for another work', () => {
    expect(titleSimilarity('Kaguya-sama: Love is War', 'kaguya sama love is war')).toBe(1);
    expect(titleSimilarity('Love is War Kaguya-sama', 'Kaguya-sama Love is War')).toBe(1);
    expect(titleSimilarity('One Punch-Man', 'One-Punch Man')).toBe(1);
    expect(titleSimilarity('Berserk', 'Berserk of Gluttony')).toBeLessThan(0.6);
    expect(titleSimilarity('', 'Berserk')).toBe(0);
  });
});

describe('the score of a candidate, and what is done with it', () => {
  it('an alternate title counts as much as the main one; the other facts move the score', () => {
    const aot = { titles: ['Shingeki no Kyojin', 'Attack on Titan', '進撃の巨人'], year: 2009, count: 34, language: 'ja' };
    const exact = scoreCandidate({ title: 'Attack on Titan', year: 2009, count: 12 }, aot);
    expect(exact.score).toBe(1);
    expect(exact.why).toMatchObject({ title: 1, matched_title: 'Attack on Titan', year: 1, count: 1 });
    const yearOff = scoreCandidate({ title: 'Attack on Titan', year: 2014, count: 12 }, aot);
    expect(yearOff.score).toBeCloseTo(0.9, 3);
    expect(scoreCandidate({ title: 'Attack on Titan' }, aot).score).toBe(1);
    expect(scoreCandidate({ title: 'Attack on Titan', count: 68 }, aot).score).toBeCloseTo(0.8 + 0.2 * (34 / 68), 3);
  });

  it('an ISBN both sides share scores 0.99, whatever the titles', () => {
    const book = { titles: ['The Left Hand of Darkness'], isbns: ['978-0-441-47812-5'] };
    expect(scoreCandidate({ title: 'Left Hand', isbn: '9780441478125' }, book).score).toBe(0.99);
    expect(scoreCandidate({ title: 'Left Hand', isbn: '9780000000000' }, book).score).toBeLessThan(0.9);
  });

  it('applies only a clear winner; a close runner-up or a middling best goes to review; below 0.7 no match', () => {
    expect(decide([0.95, 0.6])).toBe('apply');
    expect(decide([0.95])).toBe('apply');
    expect(decide([0.95, 0.9])).toBe('review');
    expect(decide([0.8, 0.3])).toBe('review');
    expect(decide([0.69])).toBe('none');
    expect(decide([])).toBe('none');
    expect(decide([0.85, 0.2], { auto: 0.8, margin: 0.1, review: 0.5 })).toBe('apply');
  });
});
