export * from './policy';
export * from './events';
export * from './commands';
export * from './refusals';
export * from './state';
export * from './decider';
export * from './checkpoint';
export * from './folded-members';
