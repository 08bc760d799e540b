-- A checkout cart's sales, found by the cart (its recovery e-mail carries the Pix it left open): only sales
-- opened from a checkout page have a cart, so a charge of the API pays nothing for this index.
CREATE INDEX IF NOT EXISTS sales_cart_idx ON sales (cart_id, id DESC) WHERE cart_id IS NOT NULL;
