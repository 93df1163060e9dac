// ISO 639-1 language codes: what `source[language]` (and a status's `language`) may be.
const ISO_639_1 = new Set(
  (
    'aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy ' +
    'da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ' +
    'ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo ' +
    'lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps ' +
    'pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn ' +
    'to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu'
  ).split(' '),
);

export const isLanguageCode = (code: string): boolean => ISO_639_1.has(code.toLowerCase());

/**
 * Every accepted code with its English name, in code order (GET /api/v1/instance/languages). The names are
 * the runtime's CLDR data (full ICU in Node and Lambda), so no second copy of them is kept here.
 */
export function languageNames(): { code: string; name: string }[] {
  const names = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });
  return [...ISO_639_1].sort().map((code) => ({ code, name: names.of(code) ?? code }));
}
