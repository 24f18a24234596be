import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { onDemand } from './on-demand';

const Greeting = ({ name }: { name: string }) => <p>Hello, {name}</p>;

describe('onDemand', () => {
  it('renders in the same render once preloaded: no Suspense, so no wait on React’s 300 ms reveal throttle', async () => {
    const greeting = onDemand(() => Promise.resolve({ default: Greeting }));
    await greeting.preload();
    render(<greeting.Component name="Ivy" />);
    expect(screen.getByText('Hello, Ivy')).toBeTruthy();
  });

  it('loads by itself when rendered before its code is in', async () => {
    const greeting = onDemand(() => Promise.resolve({ default: Greeting }));
    render(<greeting.Component name="Ivy" />);
    expect(screen.queryByText('Hello, Ivy')).toBeNull();
    expect(await screen.findByText('Hello, Ivy')).toBeTruthy();
  });
});
