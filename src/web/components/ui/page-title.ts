import { useEffect } from 'react';

/** Each page names itself in the tab and for screen readers that announce the title on navigation. */
export function usePageTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · Asset Manager`;
  }, [title]);
}
