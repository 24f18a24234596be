/**
 * The width of a card's preview. Previews are small renditions, never originals, where the platform
 * makes them (performance.md W3); the viewer shows a PDF's thumbnail at the same width while the PDF
 * opens, the picture the card already has.
 */
export const previewWidth = 320;
