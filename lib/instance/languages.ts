// The languages the instance knows (GET /api/v1/instance/languages: what a status's and a profile's
// `language` may be). Those it translates between are the translation service's (lib/translation/service.ts).
import { languageNames } from '../text/languages';

export const supportedLanguages = (): { code: string; name: string }[] => languageNames();
