export const something = 1;
