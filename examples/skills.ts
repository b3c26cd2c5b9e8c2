import { McpServer, StreamableHttpTransport, useSkills } from 'switchboard-mcp';

const server = new McpServer({ name: 'docs', version: '1.0.0' });
useSkills(server).add({
  files: {
    'SKILL.md': '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\n# PDF processing\n',
    'references/FORMS.md': '# Filling PDF forms\n',
  },
});

const { url } = await new StreamableHttpTransport(server).listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3000) });
console.log(`listening on ${url}`);
