export { MemoryViews } from './memory-views';
