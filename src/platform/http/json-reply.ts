import type { FastifyReply } from 'fastify';

/**
 * Sends JSON text that PostgreSQL already built in the declared schema's shape and key order (the
 * sales.public_json trigger). A string with a JSON content type is sent as is by Fastify.
 */
export function sendJsonText(reply: unknown, status: number, text: string): FastifyReply {
  return (reply as FastifyReply).code(status).type('application/json; charset=utf-8').send(text);
}
