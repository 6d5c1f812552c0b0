import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HarnessRuntime, type Harness, type ParticipantRuntime } from '../../domain/application/participant-runtime';

/**
 * `run --harness module:<file>`: the user's JavaScript or TypeScript module (TS through tsx). It exports one of:
 *   createRuntime(context)  -> a ParticipantRuntime (optionally with close()), or a promise of one;
 *   runtime                 -> a ParticipantRuntime;
 *   harness                 -> a Harness function (request, snapshot, port) => outer result;
 * as a named export or as the default export (a function is read as createRuntime). A
 * ParticipantRuntime has admitAction(request, snapshot) and, to receive each invocation's port,
 * attachInvocationToolActions(port).
 */

export interface ModuleHarnessContext {
  /** The folder the run was started in. */
  readonly cwd: string;
}

export type ClosableRuntime = ParticipantRuntime & { close?(): void | Promise<void> };

export interface HarnessModule {
  readonly createRuntime?: (context: ModuleHarnessContext) => ClosableRuntime | Promise<ClosableRuntime>;
  readonly runtime?: ClosableRuntime;
  readonly harness?: Harness;
  readonly default?: unknown;
}

export interface LoadedModuleHarness {
  readonly runtime: ParticipantRuntime;
  close(): Promise<void>;
}

export class ModuleHarnessInvalid extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModuleHarnessInvalid';
  }
}

const isRuntime = (value: unknown): value is ClosableRuntime =>
  typeof value === 'object' && value !== null && typeof (value as { admitAction?: unknown }).admitAction === 'function';

const runtimeOf = async (loaded: HarnessModule, context: ModuleHarnessContext, file: string): Promise<ClosableRuntime> => {
  // A CommonJS module imported as ESM puts its exports on `default`.
  const candidates: unknown[] = [loaded, loaded.default, (loaded.default as { default?: unknown } | undefined)?.default];
  for (const candidate of candidates) {
    if (typeof candidate === 'function') return checked(await (candidate as NonNullable<HarnessModule['createRuntime']>)(context), file);
    if (typeof candidate !== 'object' || candidate === null) continue;
    const module = candidate as HarnessModule;
    if (typeof module.createRuntime === 'function') return checked(await module.createRuntime(context), file);
    if (module.runtime !== undefined) return checked(module.runtime, file);
    if (typeof module.harness === 'function') return new HarnessRuntime(module.harness);
    if (isRuntime(candidate)) return candidate;
  }
  throw new ModuleHarnessInvalid(`${file} exports no participant runtime: export createRuntime(context), runtime, or harness(request, snapshot, port)`);
};

const checked = (value: unknown, file: string): ClosableRuntime => {
  if (!isRuntime(value)) throw new ModuleHarnessInvalid(`${file}: the runtime it gave has no admitAction(request, snapshot) method`);
  return value;
};

/**
 * The platform's own import(): compiled to CommonJS, a plain `import()` would become require(), which
 * cannot load an ES module or a file URL.
 */
const nativeImport = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<unknown>;

/** A TypeScript module is loaded through tsx's own import, scoped to that module. */
const importTypeScript = async (url: string): Promise<unknown> => {
  const api = (await nativeImport('tsx/esm/api')) as { tsImport(specifier: string, parent: string): Promise<unknown> };
  return api.tsImport(url, pathToFileURL(__filename).href);
};

export const loadModuleHarness = async (modulePath: string, context: ModuleHarnessContext = { cwd: process.cwd() }): Promise<LoadedModuleHarness> => {
  const file = isAbsolute(modulePath) ? modulePath : resolve(context.cwd, modulePath);
  let loaded: HarnessModule;
  try {
    const url = pathToFileURL(file).href;
    loaded = (await (/\.[cm]?tsx?$/.test(file) ? importTypeScript(url) : nativeImport(url))) as HarnessModule;
  } catch (error) {
    throw new ModuleHarnessInvalid(`cannot load the harness module ${file}: ${(error as Error).message}`);
  }
  const runtime = await runtimeOf(loaded, context, file);
  return {
    runtime,
    close: async () => {
      await runtime.close?.();
    },
  };
};
