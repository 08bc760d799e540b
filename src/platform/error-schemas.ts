import { Type } from 'typebox';

/**
 * Response schemas of the five error body shapes (spec, Errors), for route declarations and the OpenAPI
 * document. The bodies themselves are built by renderError in errors.ts.
 */
export const ShapeA = Type.Object(
  { success: Type.Literal(false), error: Type.Object({ code: Type.String(), message: Type.String() }) },
  { description: 'Error shape A' },
);
export const ShapeB = Type.Object(
  { message: Type.String(), code: Type.String() },
  { description: 'Error shape B' },
);
export const ShapeC = Type.Object(
  { message: Type.String(), errorType: Type.String() },
  { description: 'Error shape C' },
);
export const ShapeD = Type.Object(
  { message: Type.String(), error: Type.String() },
  { description: 'Error shape D' },
);
export const ShapeE = Type.Object(
  { error: Type.String(), message: Type.String() },
  { description: 'Error shape E' },
);
