// On a narrow screen a workspace shows one pane at a time, the focused one:
// these tabs, one per pane in the layout's order, are how a person switches.
// Too many for the width, the strip scrolls sideways on its own (the page
// never does).
export interface PaneTabsProps {
  sessions: readonly string[];
  shown: string | null;
  labelOf(session: string): string;
  onShow(session: string): void;
}

export function PaneTabs(props: PaneTabsProps) {
  return (
    <div className="pane-tabs" role="tablist" aria-label="panes">
      {props.sessions.map((session) => (
        <button
          key={session}
          type="button"
          role="tab"
          className="pane-tab"
          aria-selected={session === props.shown}
          data-session={session}
          onClick={() => props.onShow(session)}
        >
          {props.labelOf(session)}
        </button>
      ))}
    </div>
  );
}
