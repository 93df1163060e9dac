// lib/policy: the one home of who may see, receive and be notified of what.
// It reads through lib/db and decides; the domain folders (timelines, lists,
// statuses, notifications, streaming, search, conversations) ask it and never
// compare a visibility or compose the filters themselves.
export * from './visibility';
export * from './view';
export * from './hidden';
export * from './filters';
export * from './delivery';
export * from './receive';
export * from './accounts';
export * from './federation';
export * from './instance_domains';
export * from './roles';
export * from './sanctions';
export * from './quotes';
