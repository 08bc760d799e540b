import { render } from 'preact';
import '../style.css';
import { BillingPage, type BillingPageData } from './BillingPage';

const data = JSON.parse(document.getElementById('app')!.dataset.page!) as BillingPageData;
render(<BillingPage token={data.token} initial={data.billing} />, document.getElementById('app')!);
