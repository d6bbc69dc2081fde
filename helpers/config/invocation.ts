/**
 * How the suite was started: a clone's npm scripts (`npm run report:allure`) or the installed command
 * (`mcs-conformance report allure`, scripts/cli.ts). What the console tells a user to run next is named the
 * way they started it.
 */
export const BIN = 'mcs-conformance'

let installed = false

/** Called by the installed command before it runs anything. */
export function startedAsInstalledCommand(): void {
  installed = true
}

/**
 * The command line of an npm script (`conformance`, `explore`, `sweep`, `reproduce`, `report:allure`, …) with its
 * arguments, in the way this process was started.
 */
export function commandFor(script: string, args = ''): string {
  if (!installed) return `npm run ${script}${args ? ` -- ${args}` : ''}`
  const sub = script === 'conformance' ? '' : ` ${script.replace(':', ' ')}`
  return `${BIN}${sub}${args ? ` ${args}` : ''}`
}
