-- Onboarding documents are bounded (docs/decisions.md, "Onboarding documents"): a new upload of a kind replaces
-- the previous one, which is kept for the audit only as its SHA-256 and metadata (its bytes dropped). At most
-- one current document per account and kind.
ALTER TABLE onboarding_documents ALTER COLUMN content DROP NOT NULL;
ALTER TABLE onboarding_documents ADD COLUMN IF NOT EXISTS sha256 bytea;
ALTER TABLE onboarding_documents ADD COLUMN IF NOT EXISTS replaced_at timestamptz;
UPDATE onboarding_documents SET sha256 = sha256(content) WHERE sha256 IS NULL AND content IS NOT NULL;
-- documents sent before the rule: every one but the newest of its kind is replaced now
UPDATE onboarding_documents d SET content = NULL, replaced_at = now()
 WHERE d.replaced_at IS NULL
   AND EXISTS (SELECT 1 FROM onboarding_documents n
                WHERE n.account_id = d.account_id AND n.kind = d.kind AND n.id > d.id);
ALTER TABLE onboarding_documents ALTER COLUMN sha256 SET NOT NULL;
ALTER TABLE onboarding_documents ADD CONSTRAINT onboarding_documents_replaced_has_no_content
  CHECK (replaced_at IS NULL OR content IS NULL);
CREATE UNIQUE INDEX IF NOT EXISTS onboarding_documents_current_idx ON onboarding_documents (account_id, kind)
  WHERE replaced_at IS NULL;
-- uploads of the last day, counted per account
CREATE INDEX IF NOT EXISTS onboarding_documents_uploaded_idx ON onboarding_documents (account_id, uploaded_at);
