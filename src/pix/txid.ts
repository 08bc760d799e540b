/** The processor name the bcb adapter stores on its sales. */
export const BCB_PROCESSOR = 'bcb';

/** The standard's txid (26–35 of [a-zA-Z0-9]): the sale's uuid without dashes, 32 characters. */
export const txidOf = (saleUuid: string) => saleUuid.replace(/-/g, '');
