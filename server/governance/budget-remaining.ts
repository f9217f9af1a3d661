/**
 * What is left of a budget: budget − spent − reserved, never below 0. `spent` is what counts
 * against the budget (the current period's spend when there is a period, else the lifetime spend).
 * One formula for the admin API's remaining, POST /auth/token's and the 402 refusals' messages, so
 * every place shows the same number.
 */
export function remainingMicrocents(budget: bigint, spent: bigint, reserved: bigint): bigint {
  const left = budget - spent - reserved;
  return left > 0n ? left : 0n;
}
