import { readFileSync } from 'node:fs';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { postbackSignature } from '../../src/postbacks/signing.js';
import { serviceSignature, signWebhook, standardSignature } from '../../src/webhooks/signing.js';
import {
  EventIdDeduplicator,
  verifyPostback,
  verifyStandardWebhook,
  verifyWebhook,
} from '../../src/webhooks/verify.js';

const vectors = JSON.parse(readFileSync('/work/shared/spec/vectors.json', 'utf8'));
const ws = vectors.webhookSignature;
const sw = vectors.standardWebhooks;
const pb = vectors.postbackSignature;

describe('signing matches the worked examples', () => {
  it('X-Service-Signature', () => {
    expect(serviceSignature(ws.secret, ws.timestamp, ws.rawBody)).toBe(ws['X-Service-Signature']);
  });
  it('Standard Webhooks webhook-signature', () => {
    expect(standardSignature(sw.secret, sw['webhook-id'], sw['webhook-timestamp'], sw.rawBody)).toBe(
      sw['webhook-signature'],
    );
  });
  it('postback X-Signature', () => {
    expect(postbackSignature(pb.postbackSecret, pb.rawBody)).toBe(pb['X-Signature']);
  });
});

describe('verifyWebhook (receiver side)', () => {
  const now = Number(ws.timestamp) + 10;
  const headers = {
    'X-Service-Signature': ws['X-Service-Signature'],
    'X-Service-Timestamp': ws.timestamp,
    'X-Service-Event-Id': 'evt-1',
    'X-Service-Event-Type': 'sale.paid',
  };

  it('accepts the vector over raw bytes or text, with any header case', () => {
    expect(verifyWebhook({ body: Buffer.from(ws.rawBody), headers, secret: ws.secret, now })).toEqual({
      ok: true,
      eventId: 'evt-1',
      eventType: 'sale.paid',
      timestamp: Number(ws.timestamp),
      redelivery: false,
    });
    expect(verifyWebhook({ body: ws.rawBody, headers, secret: ws.secret, now }).ok).toBe(true);
  });

  it('rejects re-serialized JSON, a wrong secret, a tampered signature and stale or future timestamps', () => {
    const pretty = JSON.stringify(JSON.parse(ws.rawBody), null, 1);
    expect(verifyWebhook({ body: pretty, headers, secret: ws.secret, now }).ok).toBe(false);
    expect(verifyWebhook({ body: ws.rawBody, headers, secret: `${ws.secret}x`, now }).ok).toBe(false);
    const tampered = { ...headers, 'X-Service-Signature': `${ws['X-Service-Signature'].slice(0, -1)}0` };
    expect(verifyWebhook({ body: ws.rawBody, headers: tampered, secret: ws.secret, now }).ok).toBe(false);
    expect(verifyWebhook({ body: ws.rawBody, headers, secret: ws.secret, now: now + 301 })).toEqual({
      ok: false,
      reason: 'timestamp outside the tolerance window',
    });
    expect(
      verifyWebhook({ body: ws.rawBody, headers, secret: ws.secret, now: Number(ws.timestamp) - 301 }).ok,
    ).toBe(false);
    expect(verifyWebhook({ body: ws.rawBody, headers: {}, secret: ws.secret, now }).ok).toBe(false);
  });

  it('round-trips what the gateway signs, redelivery included', () => {
    const secret = 'whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=';
    const signed = signWebhook(secret as never, 'evt-9', 'withdrawal.completed', '{"a":1}', true);
    const result = verifyWebhook({ body: '{"a":1}', headers: signed.headers, secret });
    expect(result).toMatchObject({ ok: true, eventId: 'evt-9', redelivery: true });
    expect(verifyStandardWebhook({ body: '{"a":1}', headers: signed.headers, secret }).ok).toBe(true);
    expect(new StandardWebhook(secret).verify('{"a":1}', signed.headers)).toEqual({ a: 1 });
  });
});

describe('verifyStandardWebhook', () => {
  const headers = {
    'webhook-id': sw['webhook-id'],
    'webhook-timestamp': sw['webhook-timestamp'],
    'webhook-signature': `v1,bogus= ${sw['webhook-signature']}`,
  };
  it('accepts the vector (one of several listed signatures) and rejects changes', () => {
    const now = Number(sw['webhook-timestamp']);
    expect(verifyStandardWebhook({ body: sw.rawBody, headers, secret: sw.secret, now }).ok).toBe(true);
    expect(verifyStandardWebhook({ body: `${sw.rawBody} `, headers, secret: sw.secret, now }).ok).toBe(false);
    expect(
      verifyStandardWebhook({
        body: sw.rawBody,
        headers: { ...headers, 'webhook-id': 'evt_0002' },
        secret: sw.secret,
        now,
      }).ok,
    ).toBe(false);
    expect(verifyStandardWebhook({ body: sw.rawBody, headers, secret: sw.secret, now: now + 1000 }).ok).toBe(
      false,
    );
  });
});

describe('verifyPostback', () => {
  it('accepts the vector and rejects any other bytes or secret', () => {
    expect(
      verifyPostback({ body: pb.rawBody, signature: pb['X-Signature'], postbackSecret: pb.postbackSecret }),
    ).toBe(true);
    expect(
      verifyPostback({
        body: Buffer.from(pb.rawBody),
        signature: pb['X-Signature'],
        postbackSecret: pb.postbackSecret,
      }),
    ).toBe(true);
    expect(
      verifyPostback({
        body: `${pb.rawBody}\n`,
        signature: pb['X-Signature'],
        postbackSecret: pb.postbackSecret,
      }),
    ).toBe(false);
    expect(verifyPostback({ body: pb.rawBody, signature: pb['X-Signature'], postbackSecret: 'other' })).toBe(
      false,
    );
    expect(
      verifyPostback({ body: pb.rawBody, signature: undefined, postbackSecret: pb.postbackSecret }),
    ).toBe(false);
  });
});

describe('EventIdDeduplicator', () => {
  it('processes an event id once', () => {
    const d = new EventIdDeduplicator(60);
    expect(d.firstTime('a', 1000)).toBe(true);
    expect(d.firstTime('a', 1001)).toBe(false);
    expect(d.firstTime('b', 1001)).toBe(true);
    expect(d.firstTime('a', 1100)).toBe(true);
  });
});
