import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { describeStoreContract } from './contract.ts';

describeStoreContract('memory', async () => new MemoryStore());
