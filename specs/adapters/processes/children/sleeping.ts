/** A shell command that starts two long sleepers, one in the background, each with `marker` in its command line. */
export const sleeping = (marker: string): string => {
  const sleeper = `"${process.execPath}" -e "setTimeout(() => {}, 300000)" ${marker}`;
  return `${sleeper} & ${sleeper}; echo never`;
};
