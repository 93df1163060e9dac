// The List entity (Mastodon 3.3+: id, title, replies_policy).
import type { List } from '../db/lists';

export const renderList = (list: List): Record<string, unknown> => ({ id: list.id, title: list.title, replies_policy: list.repliesPolicy });
