/**
 * The operations the explore run draws from, one fast-check AsyncCommand each, over every endpoint of §4 by
 * accounts A, B, C and an anonymous caller. Each command predicts from the model what the spec requires
 * (success or refusal, counts, contents, order, visibility), sends the request, judges the answer and
 * updates the model. Where the spec leaves the answer open the command accepts every allowed answer and,
 * when the model can no longer know the state, reads it back (the owner's view) before going on.
 *
 * Each spec area's commands are in commands/<area>.ts, as the suites are split; this file draws from all of
 * them in one weighted choice (their order is part of what a seed means) and holds the audit that ends
 * every sequence.
 */
import fc from 'fast-check'
import { ACCOUNT_KEYS } from '../../config/config'
import { verifyItems } from '../judge'
import { Exec } from '../state'
import { channelCommands, GetChannel, Summary } from './channels'
import { Search, searchCommands } from './search'
import { ListSubscribers, subscriptionCommands } from './subscriptions'
import { GetTags, tagCommands } from './tags'
import { Fetch, itemCommands } from './items'
import { anonymousCommands } from './anonymous'
import { userCommands } from './users'
import { messageCommands } from './messages'
export { SLOTS } from './base'

export function commandArbitraries(): fc.Arbitrary<fc.AsyncCommand<Exec, Exec>>[] {
  return [
    fc.oneof(
      ...channelCommands(),
      ...searchCommands(),
      ...subscriptionCommands(),
      ...tagCommands(),
      ...itemCommands(),
      ...anonymousCommands(),
      ...userCommands(),
      ...messageCommands(),
    ),
  ]
}

/** What the model holds at the end of a sequence, read back through every path (the audit). */
export async function audit(x: Exec): Promise<void> {
  x.step++
  x.stepTitles.push('audit: every channel read back by its owner and the others')
  for (const slot of x.slots) {
    if (slot.tainted) continue
    const ch = slot.channel
    if (!ch) {
      if (slot.history === 0) continue
      for (const by of ACCOUNT_KEYS) await new GetChannel(slot.index, by, 'plain').exec(x)
      continue
    }
    await new GetChannel(slot.index, ch.owner, 'plain').exec(x)
    await verifyItems(x, slot, 'audit')
    await new Summary(slot.index, ch.owner, 'plain').exec(x)
    await new GetTags(slot.index, ch.owner, 'plain').exec(x)
    await new ListSubscribers(slot.index, ch.owner, 'plain').exec(x)
    if (ch.private) {
      for (const by of ACCOUNT_KEYS.filter((k) => k !== ch.owner)) {
        await new GetChannel(slot.index, by, 'plain').exec(x)
        await new GetChannel(slot.index, by, 'hash').exec(x)
        await new Fetch(slot.index, by, 'plain', 'all', 'ASC', 0, 50).exec(x)
      }
      await new Search(slot.index, ch.owner === 'A' ? 'B' : 'A', 'exact', '', 0, 20).exec(x)
    }
  }
}
