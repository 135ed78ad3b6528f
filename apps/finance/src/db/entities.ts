export const entities = [];
