import QRCode from "qrcode";
import { describe, expect, it } from "vitest";
import { accessibleSvg, QR_OPTIONS, qrSvg } from "./qr.js";

const URI = "ethereum:0x55d398326f99059fF775485246999027B3197955@56/transfer?address=0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed&uint256=25500000000000000000";

describe("accessibleSvg", () => {
  it("makes the root an image named by the label, out of the tab order", () => {
    expect(accessibleSvg('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 9 9"><path d="M0 0h1"/></svg>', "QR code")).toBe(
      '<svg role="img" aria-label="QR code" focusable="false" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 9 9"><path d="M0 0h1"/></svg>',
    );
  });

  it("escapes the label", () => {
    expect(accessibleSvg("<svg></svg>", `a "b" <c> & d`)).toBe('<svg role="img" aria-label="a &quot;b&quot; &lt;c&gt; &amp; d" focusable="false"></svg>');
  });

  it("removes every style attribute, whatever its quotes or case", () => {
    const svg = accessibleSvg(`<svg style="width:1px" viewBox="0 0 1 1"><path STYLE='fill:red' d="M0 0"/><rect style = "x" /></svg>`, "QR");
    expect(svg).toBe('<svg role="img" aria-label="QR" focusable="false" viewBox="0 0 1 1"><path d="M0 0"/><rect /></svg>');
  });

  it("refuses what is not an SVG", () => {
    expect(() => accessibleSvg("<div></div>", "QR")).toThrow("not an SVG document");
    expect(() => accessibleSvg("x<svg></svg>", "QR")).toThrow("not an SVG document");
    expect(() => accessibleSvg("<svgx></svgx>", "QR")).toThrow("not an SVG document");
  });

  it("keeps leading white space out of the result", () => {
    expect(accessibleSvg("\n <svg></svg>", "QR")).toBe('<svg role="img" aria-label="QR" focusable="false"></svg>');
  });
});

describe("qrSvg", () => {
  it("draws the text's QR code as the library does, made accessible, with no style attribute", async () => {
    const svg = await qrSvg(URI, "QR code of the payment request");
    expect(svg).toBe(accessibleSvg(await QRCode.toString(URI, QR_OPTIONS), "QR code of the payment request"));
    expect(svg.startsWith('<svg role="img" aria-label="QR code of the payment request" focusable="false" xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).not.toMatch(/style\s*=/i);
    expect(svg).toContain('fill="#ffffff"');
    expect(svg).toContain('stroke="#000000"');
  });

  it("uses medium error correction and a quiet zone of four modules", async () => {
    const modules = QRCode.create(URI, { errorCorrectionLevel: "M" }).modules.size;
    const svg = await qrSvg(URI, "QR");
    expect(svg).toContain(`viewBox="0 0 ${modules + 8} ${modules + 8}"`);
    // The first dark module row starts after the quiet zone.
    expect(svg).toMatch(/d="M4 4\.5h7/);
    expect(QR_OPTIONS).toEqual({ type: "svg", errorCorrectionLevel: "M", margin: 4, color: { dark: "#000000", light: "#ffffff" } });
  });
});
