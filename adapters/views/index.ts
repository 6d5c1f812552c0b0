export { openViewsDatabase } from './views-database';
export { openInvocationsIndex } from './open-invocations-index';
export { SqliteViews, sqliteViews } from './sqlite';
