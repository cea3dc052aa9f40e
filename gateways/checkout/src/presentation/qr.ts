import QRCode from "qrcode";

/** How a QR code is drawn: medium error correction, the standard quiet zone of four modules, black on white. */
export const QR_OPTIONS = { type: "svg", errorCorrectionLevel: "M", margin: 4, color: { dark: "#000000", light: "#ffffff" } } as const;

const escapeAttribute = (text: string) => text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * An SVG made fit to be inlined in a page under a strict CSP and read by
 * assistive technology: no `style` attribute anywhere, the root an image
 * (`role="img"`) named by `label`, and not a focus stop.
 */
export function accessibleSvg(svg: string, label: string): string {
  const root = /^\s*<svg\b/.exec(svg);
  if (!root) throw new Error("not an SVG document");
  const clean = svg.slice(root[0].length).replace(/\sstyle\s*=\s*("[^"]*"|'[^']*')/gi, "");
  return `<svg role="img" aria-label="${escapeAttribute(label)}" focusable="false"${clean}`;
}

/** A QR code of `text`, drawn server-side as inline SVG (so it needs no JavaScript), named `label` for screen readers. */
export async function qrSvg(text: string, label: string): Promise<string> {
  return accessibleSvg(await QRCode.toString(text, QR_OPTIONS), label);
}
