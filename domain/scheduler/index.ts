export * from './policy';
export * from './events';
export * from './commands';
export * from './refusals';
export * from './decider';
