import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type Compile = (route: unknown) => (data: unknown) => unknown;
type Build = (externalSchemas: unknown, options: unknown) => Compile;

// Fastify's own compilers (Ajv for requests, fast-json-stringify for responses), the copies it depends on
const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
const defaultValidator = (fromFastify('@fastify/ajv-compiler') as () => Build)();
const defaultSerializer = (fromFastify('@fastify/fast-json-stringify-compiler') as () => Build)();

/**
 * Fastify's request validators and response serializers, each compiled by the first request (or response) that
 * needs it rather than all at start: the gateway has some three hundred routes, most of which a process never
 * serves, and compiling them all was most of a start-up's CPU and a share of the idle heap. The compilers are
 * Fastify's own with their own options; only the moment changes. `compileAll` compiles those still waiting (the
 * tests call it, so a schema that fails to compile fails there, not at its route's first request).
 */
export function lazySchemaCompilers(): {
  schemaController: NonNullable<FastifyServerOptions['schemaController']>;
  compileAll(): void;
} {
  const waiting = new Set<() => void>();
  const lazily =
    (build: Build, kind: 'validator' | 'serializer'): Build =>
    (externalSchemas, options) => {
      const compile = build(externalSchemas, options);
      return (route) => {
        let compiled: (((data: unknown) => unknown) & { errors?: unknown }) | undefined;
        const now = () => {
          if (compiled === undefined) {
            compiled = compile(route);
            waiting.delete(now);
          }
          return compiled;
        };
        waiting.add(now);
        if (kind === 'serializer') return (data: unknown) => now()(data);
        // Fastify reads a validator's `errors` after a call that answered false
        const validate = (data: unknown) => {
          const fn = now();
          const ok = fn(data);
          validate.errors = fn.errors;
          return ok;
        };
        validate.errors = undefined as unknown;
        return validate;
      };
    };
  return {
    schemaController: {
      compilersFactory: {
        buildValidator: lazily(defaultValidator, 'validator') as never,
        buildSerializer: lazily(defaultSerializer, 'serializer') as never,
      },
    },
    compileAll() {
      for (const compile of [...waiting]) compile();
    },
  };
}

/**
 * A validator builder given in the options makes Fastify treat it as a foreign compiler (Joi, TypeBox's own)
 * and hand it header schemas as written; these are Fastify's own compilers, which take them lower-cased, as
 * Fastify does for its default. Called once on the new instance, before any route.
 */
export function keepDefaultHeaderHandling(app: object): void {
  const key = Object.getOwnPropertySymbols(app).find((s) => s.description === 'fastify.schemaController');
  const controller = key ? (app as Record<symbol, { isCustomValidatorCompiler?: boolean }>)[key] : undefined;
  if (!controller || controller.isCustomValidatorCompiler === undefined) {
    throw new Error("Fastify's schema controller was not found: the lazy schema compilers need updating");
  }
  controller.isCustomValidatorCompiler = false;
}
