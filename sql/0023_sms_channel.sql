-- The channel a caught message was meant for (`sms` or `whatsapp`, the auth API's `channel`).
-- The catcher also stands in for a provider enabled without its secret in local development.
ALTER TABLE supagate.sms ADD COLUMN channel text NOT NULL DEFAULT 'sms';
