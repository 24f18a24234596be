/**
 * Moves focus to a file's card, to its first action (as after a delete, below); false when the file
 * has no card on the page.
 */
export function focusCard(fileId: number): boolean {
  const action = document.getElementById(`file-${fileId}`)?.querySelector<HTMLElement>('button');
  action?.focus();
  return action !== undefined && action !== null;
}

/**
 * Where focus goes once a card has left the list: the next card's first action, else the one before,
 * else the slot's upload control, else its heading. Never the top of the page, and never into the
 * "Undo" notice (it would hold the undo window open: the notice is the next stop after the upload
 * control, and a live region announces it). Found before the card goes (its neighbours), and
 * looked up once it has (the upload control).
 */
export function focusAfterRemoving(card: HTMLElement | null): () => void {
  const neighbour = (card?.nextElementSibling ?? card?.previousElementSibling) as HTMLElement | null;
  const next = neighbour?.querySelector<HTMLElement>('button');
  const slot = card?.closest('section');
  return () =>
    (next?.isConnected
      ? next
      : (slot?.querySelector<HTMLElement>('.drop-area button') ?? slot?.querySelector('h2'))
    )?.focus();
}
