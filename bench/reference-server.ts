// The ceiling of a POST on this machine: bare Fastify doing only what any implementation of
// the contract must do for `POST {prefix}/deals` or `/sell`: parse the JSON body, validate it
// against the same schema, and serialize an answer of the same shape with JSON.stringify
// (REFERENCE_BODY: what the service answered for the scenario it stands for). No gate, no store.
// `npm run bench` measures it beside the service, so each run shows how much of a route's
// distance from /health is the machine's and how much is the gate's.
import Fastify from 'fastify';
import { validatorCompiler } from '../src/http/validation.ts';
import { CreateDealBody } from '../src/schemas/deal.ts';

const answer = JSON.parse(process.env.REFERENCE_BODY ?? '{}');
// REFERENCE_WORK_US: microseconds of busy work per request, for bench/work-curve.ts.
const workNs = BigInt(Math.round(Number(process.env.REFERENCE_WORK_US ?? 0) * 1000));
const app = Fastify({ logger: false });
app.setValidatorCompiler(validatorCompiler);
app.setSerializerCompiler(() => (data) => JSON.stringify(data));
app.get('/health', async () => ({ ok: true }));
app.post('/reference', { schema: { body: CreateDealBody } }, async (_request, reply) => {
  if (workNs > 0n) {
    const until = process.hrtime.bigint() + workNs;
    while (process.hrtime.bigint() < until);
  }
  return reply.code(201).send(answer);
});
await app.listen({ port: Number(process.env.PORT), host: process.env.HOST ?? '127.0.0.1' });
