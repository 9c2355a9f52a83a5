/**
 * A card's unread mark: how many finished answers nobody has looked at (`unread`), so an idle
 * session with an answer waiting reads differently from one never asked. Absent at 0.
 */
export function showUnread(card: HTMLElement, unread: number | undefined): void {
  const n = unread ?? 0;
  let badge = card.querySelector<HTMLElement>('.unread');
  if (n === 0) {
    badge?.remove();
    delete card.dataset.unread;
    return;
  }
  if (!badge) {
    badge = document.createElement('span');
    badge.className = 'unread';
    card.querySelector('header')?.append(badge);
  }
  const text = `${n} unread`;
  if (badge.textContent !== text) badge.textContent = text;
  badge.title = `${n} finished answer${n === 1 ? '' : 's'} not looked at yet`;
  card.dataset.unread = String(n);
}
