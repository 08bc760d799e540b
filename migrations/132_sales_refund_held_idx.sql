-- Sales holding money for a refund (a few at any time): found by the worker that gives back holds no
-- processor is working on any more (a crash between the hold and the processor's request).
CREATE INDEX IF NOT EXISTS sales_refund_held_idx ON sales (updated_at) WHERE refund_held;
