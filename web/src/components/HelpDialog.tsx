// The keyboard shortcuts, in a modal dialog that Escape closes.
import { useEffect, useRef } from 'react';
import { SHORTCUT_HELP } from '../layout/shortcuts.js';

export function HelpDialog(props: { onClose(): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  return (
    <dialog ref={dialog} className="help-dialog" aria-label="keyboard shortcuts" onClose={props.onClose}>
      <h2>Keys</h2>
      <table>
        <tbody>
          {SHORTCUT_HELP.map(([keys, what]) => (
            <tr key={keys}>
              <th scope="row">
                <kbd>{keys}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>On the dashboard: Tab moves between controls, Enter opens a session, and each row's buttons rename, kill or revive it.</p>
      <form method="dialog">
        <button type="submit" autoFocus>
          Close
        </button>
      </form>
    </dialog>
  );
}
