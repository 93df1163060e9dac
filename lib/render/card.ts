// The PreviewCard entity (https://docs.joinmastodon.org/entities/PreviewCard/).
// CONTRACT: the cards area owns this file.
import type { PreviewCard } from '../db/cards';

export function renderCard(card: PreviewCard | undefined): Record<string, unknown> | null {
  if (!card) return null;
  return null;
}
