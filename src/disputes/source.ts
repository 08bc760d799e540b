/** The `source` of disputes opened from Efí's MED infraction list. */
export const EFI_MED = 'efi-med';
