// run — see i18n/index.ts for the conventions (strings, or functions of typed parameters).
export const run = {
};
