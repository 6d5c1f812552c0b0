/** @type {import('jest').Config} */
const swc = ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }];

const project = (displayName, testMatch) => ({
  displayName,
  testMatch,
  // Node's environment, which also removes the spec file's scratch dirs once it is done.
  testEnvironment: '<rootDir>/specs/support/scratch-dir-environment.js',
  // nanoid 5 ships ESM only; it is transformed like project code.
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns: ['/node_modules/(?!nanoid/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
});

module.exports = {
  reporters: ['default', '<rootDir>/specs/support/summary-reporter.js'],
  projects: [
    project('unit', ['<rootDir>/specs/**/*.unit.spec.ts']),
    project('int', ['<rootDir>/specs/**/*.int.spec.ts']),
    project('e2e', ['<rootDir>/specs/**/*.e2e.spec.ts']),
  ],
};
