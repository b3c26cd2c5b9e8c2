/**
 * register_for_event: one form with every field kind form-mode elicitation allows (client/elicitation.mdx,
 * SEP-1330 enums, SEP-1034 defaults), and a summary of what came back. `ctx.elicit` pushes the form on a
 * legacy-era session and asks it as an input round on 2026-07-28: the handler is the same.
 */
import type { ElicitRequestedSchema, ElicitValue, McpServer, PrimitiveSchemaDefinition } from '../src/index.js';

/** The sign-up form: each property is one field kind; several have defaults, several are required. */
export const REGISTRATION_FORM: ElicitRequestedSchema = {
  type: 'object',
  properties: {
    // Strings: plain with lengths, and each format.
    name: { type: 'string', title: 'Full name', description: '2 to 60 characters', minLength: 2, maxLength: 60 },
    email: { type: 'string', title: 'Email', format: 'email' },
    website: { type: 'string', title: 'Website', format: 'uri' },
    arrival: { type: 'string', title: 'Arrival date', format: 'date' },
    callback: { type: 'string', title: 'Call me back at', description: 'A date and time, such as 2026-09-14T10:30:00Z', format: 'date-time' },
    // Numbers, with bounds; the integer has a default.
    budget: { type: 'number', title: 'Travel budget (EUR)', minimum: 0, maximum: 5000 },
    guests: { type: 'integer', title: 'Guests you bring', minimum: 0, maximum: 4, default: 0 },
    newsletter: { type: 'boolean', title: 'Send me the launch newsletter', default: true },
    // Single-select: a plain enum, titled options (oneOf), and the legacy enumNames.
    ticket: { type: 'string', title: 'Ticket', enum: ['standard', 'student', 'vip'], default: 'standard' },
    track: {
      type: 'string',
      title: 'Track',
      oneOf: [
        { const: 'web', title: 'Web and front end' },
        { const: 'ai', title: 'AI and agents' },
        { const: 'infra', title: 'Infrastructure' },
      ],
    },
    shirt: { type: 'string', title: 'T-shirt size', enum: ['s', 'm', 'l', 'xl'], enumNames: ['Small', 'Medium', 'Large', 'Extra large'], default: 'm' },
    // Multi-select: plain options with a number of picks, and titled options.
    sessions: {
      type: 'array',
      title: 'Sessions to attend',
      description: 'Pick 1 to 3',
      minItems: 1,
      maxItems: 3,
      items: { type: 'string', enum: ['keynote', 'workshop', 'panel', 'party'] },
      default: ['keynote'],
    },
    dietary: {
      type: 'array',
      title: 'Dietary needs',
      items: {
        anyOf: [
          { const: 'vegetarian', title: 'Vegetarian' },
          { const: 'vegan', title: 'Vegan' },
          { const: 'gluten-free', title: 'Gluten-free' },
          { const: 'nut-free', title: 'Nut-free' },
        ],
      },
      default: [],
    },
  },
  required: ['name', 'email', 'arrival', 'track', 'sessions'],
};

interface TitledOption {
  const: string;
  title: string;
}

/** How an option reads: its title when the form gives one (oneOf, anyOf, enumNames), else its value. */
function optionLabel(property: PrimitiveSchemaDefinition, value: string): string {
  const items = property.items as { anyOf?: TitledOption[] } | undefined;
  const titled = (property.oneOf as TitledOption[] | undefined) ?? items?.anyOf;
  const option = titled?.find((o) => o.const === value);
  if (option) return option.title;
  const names = property.enumNames as string[] | undefined;
  const index = (property.enum as string[] | undefined)?.indexOf(value) ?? -1;
  return names && index >= 0 ? names[index] : value;
}

function describeValue(property: PrimitiveSchemaDefinition, value: ElicitValue | undefined): string {
  if (value === undefined) return 'not given';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map((v) => optionLabel(property, v)).join(', ');
  return typeof value === 'string' ? optionLabel(property, value) : String(value);
}

/**
 * One line per field of `form`, in the form's order: its title and the answer. A field the answer left
 * out reads as its default (a client fills defaults in, SEP-1034, but one that does not still gets them).
 */
export function summarizeAnswer(form: ElicitRequestedSchema, content: Record<string, ElicitValue>): string[] {
  return Object.entries(form.properties).map(([name, property]) => {
    const value = content[name] ?? (property.default as ElicitValue | undefined);
    return `${(property.title as string | undefined) ?? name}: ${describeValue(property, value)}`;
  });
}

export function registerFormDemo(server: McpServer): void {
  server.registerTool(
    'register_for_event',
    {
      title: 'Sign up for the launch event',
      description:
        'Asks you to fill in a sign-up form with every field kind a form can have (text with formats and lengths, numbers, a yes/no, single and multi-select lists, defaults, required fields), then shows what it received.',
      inputSchema: { type: 'object', properties: {} },
    },
    async (_args, ctx) => {
      const answer = await ctx.elicit({ message: 'Sign up for the launch event.', requestedSchema: REGISTRATION_FORM });
      if (answer.action !== 'accept') return `Not registered (you chose ${answer.action}).`;
      const content = answer.content ?? {};
      const lines = summarizeAnswer(REGISTRATION_FORM, content);
      return {
        content: [{ type: 'text', text: `Registered for the launch event:\n${lines.map((line) => `- ${line}`).join('\n')}` }],
        // What arrived, as the client sent it (after its defaults), for a client that shows structured content.
        structuredContent: { received: content },
      };
    },
  );
}
