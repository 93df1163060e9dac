// Trends::Link (https://docs.joinmastodon.org/entities/PreviewCard/#trends-link): a
// trending link is its PreviewCard entity plus the week of `history` its trend counted.
import type { TrendingLink } from '../trends';
import { renderCard } from './card';

export const renderTrendingLink = (link: TrendingLink): Record<string, unknown> => ({ ...renderCard(link.card), history: link.history });
