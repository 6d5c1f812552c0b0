export { SqliteViews, sqliteViews } from './sqlite-views';
