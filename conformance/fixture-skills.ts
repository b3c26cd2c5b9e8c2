/** The fixture's skill (SEP-2640): pdf-processing, a SKILL.md and a file in a subdirectory, as the suite's own mock has them. */
import { type McpServer, useSkills } from '../src/index.js';

export const PDF_SKILL = {
  'SKILL.md':
    '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\n# PDF processing\n\nRead the forms guide in references/FORMS.md before filling a form.\n',
  'references/FORMS.md': '# Filling PDF forms\n\nList the fields first, then fill them one by one.\n',
};

export function registerFixtureSkills(server: McpServer): void {
  useSkills(server).add({ files: PDF_SKILL });
}
