/**
 * A marketplace on the gateway, from its own code with the SDK: a seller signed up as a recipient, a card sale in
 * three installments of which 70 % is the seller's, a partial refund that says who paid for it, a monthly course
 * fee shared the same way, and the seller's cashout to its PIX key, completed by the sandbox's payout provider.
 * The lines that talk to the gateway sit between `gateway:begin` and `gateway:end` (test/examples/plumbing.test.ts
 * counts them); the rest is the marketplace's own data and its printing.
 *
 *   GATEWAY_URL=http://localhost:3000 GATEWAY_PUBLIC_KEY=pk_… GATEWAY_PRIVATE_KEY=sk_… npm run example:marketplace
 */
import { setTimeout as sleep } from 'node:timers/promises';
// gateway:begin
import { Gateway } from '@payment-gateway/sdk';

// gateway:end

const SELLER = {
  name: 'Ateliê da Ana',
  document: '52998224725',
  email: 'ana@example.com',
  pixKey: 'ana@example.com',
  pixKeyType: 'EMAIL' as const,
};
const BUYER = {
  name: 'Maria Silva',
  email: 'maria@example.com',
  document: '39053344705',
  phone: '5511987654321',
};
/** In a shop the buyer's browser turns the card into a token with the public key alone; here the script does. */
const CARD = {
  number: '4111 1111 1111 1111',
  holderName: 'MARIA SILVA',
  expMonth: 12,
  expYear: 2030,
  cvv: '123',
};
const VASE = { title: 'Vaso de cerâmica', unitPrice: 30000, quantity: 1, tangible: true };
const VASE_SALE = {
  amount: VASE.unitPrice,
  paymentMethod: 'CREDIT_CARD' as const,
  installments: 3,
  customer: BUYER,
  items: [VASE],
};
const STUDENT = { name: 'João Lima', email: 'joao@example.com', document: '11144477735' };
const COURSE = {
  name: 'Curso de cerâmica',
  amountCents: 19900,
  interval: 'month' as const,
  methods: ['PIX' as const],
};
/** A refund of the gift wrap: 60 of the vase's 300 reais. */
const REFUND_CENTS = 6000;
/** The course starts in ten days: its PIX charge is due five days before (BOLETO_DAYS_BEFORE), not yet. */
const inTenDays = new Date(Date.now() + 10 * 86_400_000).toLocaleDateString('sv-SE', {
  timeZone: 'America/Sao_Paulo',
});
const reais = (cents: number) =>
  (cents / 100).toLocaleString('pt-BR', { style: 'currency', currency: 'BRL' });
function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(what);
}

// gateway:begin
const gateway = Gateway.fromEnv(); // GATEWAY_URL, GATEWAY_PUBLIC_KEY, GATEWAY_PRIVATE_KEY
const seller = await gateway.recipients.create(SELLER);
const { token } = await gateway.cards.tokenize(CARD);
// the seller answers for refunds and disputes of its share (liable); the platform keeps 30 % and pays the fee
const split = [{ recipientId: seller.id, percent: 70, liable: true }];
const vase = await gateway.transactions.create({ ...VASE_SALE, card: { token }, split });
await gateway.transactions.refund(vase.uuid, {
  amountCents: REFUND_CENTS,
  idempotencyKey: `gift-wrap-${vase.uuid}`,
});
const [refund] = await gateway.refunds.list(vase.uuid);
// gateway:end
console.log(`seller ${seller.id} (${seller.name}); card sale ${vase.uuid}: ${vase.status}, 3 installments`);
for (const part of refund!.allocation) {
  const who = part.party === 'platform' ? 'platform' : `seller ${part.party}`;
  console.log(
    `refund ${reais(REFUND_CENTS)}: ${who} paid ${reais(part.amountCents)} (${reais(part.fromReceivableCents)} from the sale's installments, ${reais(part.fromAvailableCents)} from available)`,
  );
}
console.log(
  `refund ${reais(REFUND_CENTS)}: the gateway gave back ${reais(refund!.feeReturnedCents)} of its fee`,
);
check(
  refund!.allocation.some((p) => p.party === seller.id && p.fromReceivableCents > 0),
  'the seller paid nothing',
);

// gateway:begin
const student = await gateway.customers.create(STUDENT);
const course = await gateway.plans.create(COURSE);
const monthly = await gateway.subscriptions.create({
  customerId: student.id,
  planId: course.id,
  paymentMethod: 'PIX',
  startDate: inTenDays,
  split: [{ recipientId: seller.id, percent: 70 }],
});
// the sandbox makes the first month's charge now (the scheduler would in five days, and e-mail it to the student); pay it
await gateway.sandbox.advanceSubscription(monthly.id);
const month = (await gateway.transactions.list({ limit: 20 })).data.find(
  (s) => s.subscriptionId === monthly.id,
);
await gateway.sandbox.pay(month!.uuid);
const { available } = await gateway.recipients.balance(seller.id);
const payout = await gateway.recipients.cashout(seller.id, { amountCents: available }); // to the seller's own key
// the sandbox's payout provider takes it within 2 s (PENDING → PROCESSING), then pays it
while ((await gateway.cashouts.retrieve(payout.uuid)).status === 'PENDING') await sleep(200);
const paid = await gateway.sandbox.completeWithdrawal(payout.uuid);
// gateway:end
const share = month!.split?.find((p) => p.recipientId === seller.id)?.netCents ?? 0;
console.log(`subscription ${monthly.id}: the seller gets ${reais(share)} of each month`);
check(share === 13930, 'the seller did not get 70 % of the month');
console.log(`seller withdrawal ${paid.uuid}: ${paid.status}, ${reais(available)} to ${payout.pixKey}`);
check(paid.status === 'COMPLETED', 'the seller was not paid');
