import { describe, expect, it } from 'vitest';
import { closestLanguage, directionOf, isLanguage } from './i18n';

describe('the interface language a browser gets', () => {
  it('is the closest shipped one: exact tag, then the same language, then English', () => {
    expect(closestLanguage(['fr-CA', 'en'])).toBe('fr');
    expect(closestLanguage(['pt-PT'])).toBe('pt-BR');
    expect(closestLanguage(['zh-CN'])).toBe('zh-Hans');
    expect(closestLanguage(['zh-hans'])).toBe('zh-Hans');
    expect(closestLanguage(['sv-SE', 'de-AT'])).toBe('de');
    expect(closestLanguage(['xx'])).toBe('en');
    expect(closestLanguage([])).toBe('en');
  });
  it('never gives Simplified Chinese to a reader of Traditional, which is not shipped', () => {
    expect(closestLanguage(['zh-TW'])).toBe('en');
    expect(closestLanguage(['zh-Hant-HK', 'ja'])).toBe('ja');
  });
  it('knows which are written right to left', () => {
    expect(directionOf('ar')).toBe('rtl');
    expect(directionOf('fr')).toBe('ltr');
    expect(isLanguage('ko')).toBe(true);
    expect(isLanguage('ko-KR')).toBe(false);
  });
});
