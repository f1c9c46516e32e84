// errors — what the core and the worker say (i18n/core-messages.ts): `core.<code>` words a coded
// message from its args; `coreSays` frames one the catalogue does not word (shown in English).
export const errors = {
  coreSays: 'The core says: ',
  core: {
  } as Record<string, never>,
};
