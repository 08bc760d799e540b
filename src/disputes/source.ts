/** The `source` of disputes opened from Efí's MED infraction list. */
export const EFI_MED = 'efi-med';

/** The `source` of chargebacks Cielo notified and confirmed (`Payment.Chargebacks` of its query API). */
export const CIELO_CHARGEBACK = 'cielo-chargeback';
